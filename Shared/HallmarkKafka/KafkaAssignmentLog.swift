import Foundation

/// Reads back what a consumer logged on its rebalances ("partitions assigned" / "partitions
/// revoked", each with its `partitions`), from a service's JSON log lines: how a test or a
/// bench that started a service as a process learns which partitions it holds.
public enum KafkaAssignmentLog {
    /// The partitions (`topic/partition`) held after the last of these log lines; eager
    /// rebalances name whole sets, so replaying them in order leaves the current one.
    public static func held(in log: String) -> Set<String> {
        var held = Set<String>()
        for line in log.split(separator: "\n") where line.contains("\"msg\":\"partitions ") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let list = object["partitions"] as? String,
                let names = try? JSONSerialization.jsonObject(with: Data(list.utf8)) as? [String]
            else { continue }
            switch object["msg"] as? String {
            case "partitions assigned": held.formUnion(names)
            case "partitions revoked": held.subtract(names)
            default: break
            }
        }
        return held
    }
}
