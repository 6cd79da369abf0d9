import Foundation
import HallmarkCore
import HallmarkMessages
import Logging
import Synchronization

/// Writes one JSON object per line to stdout:
/// `{"ts":…,"level":…,"logger":…,"msg":…,"service":…, …metadata}`.
///
/// Metadata values are written as given; callers keep secrets out of them (Hallmark's error
/// types redact by construction).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    private static let output = Mutex<FileHandle>(FileHandle.standardOutput)

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var object: [String: Any] = [:]
        for (key, value) in merged { object[key] = Self.json(value) }
        object["ts"] = Timestamp.now().text
        object["level"] = event.level.rawValue
        object["logger"] = label
        object["msg"] = "\(event.message)"
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(0x0A)
        Self.output.withLock { $0.write(line) }
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let s): return s
        case .stringConvertible(let c): return c.description
        case .array(let a): return a.map(json)
        case .dictionary(let d): return d.mapValues(json)
        }
    }
}
