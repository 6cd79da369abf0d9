// deploy/local/fuzz --leaks builds this with the same sanitizers as hallmark-fuzz and runs it
// with the same options and Tests/Fuzz/lsan.supp before it trusts a clean leak check: an input
// that makes a retain cycle must be reported, and one that only reads a lazily made global
// (held through an enum's tagged pointer, which the suppressions are for) must not.
import Foundation

final class Node {
    var next: Node?
    let payload = Data(repeating: 7, count: 64)
}

enum Held {
    case none
    case bytes(Data)
    case node(Node)
}

/// Made once, on first use; Data inside a multi-payload enum.
let table: [Held] = [.bytes(Data(repeating: 1, count: 48)), .none]

@_cdecl("LLVMFuzzerTestOneInput")
public func leakCanary(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    if input.hasPrefix("cycle") {
        let node = Node()
        node.next = node
    } else if case .bytes(let data) = table[count % 2 == 0 ? 0 : 1], data.isEmpty {
        return 1
    }
    return 0
}
