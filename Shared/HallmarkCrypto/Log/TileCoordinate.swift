import Foundation

/// One C2SP tlog-tiles resource: the hash tile `tile/<L>/<N>[.p/<W>]` or the entry bundle
/// `tile/entries/<N>[.p/<W>]`. A full tile holds 256 hashes (8,192 bytes) or 256 entries; a
/// partial one, the last of its level, 1 to 255.
public struct TileCoordinate: Sendable, Hashable, CustomStringConvertible {
    /// Hashes (or entries) in a full tile.
    public static let width = 256

    /// The tile's level (0–63), or nil for an entry bundle.
    public var level: Int?
    /// Its index within the level.
    public var index: UInt64
    /// How many hashes it holds: 256 for a full tile.
    public var width: Int

    public init(level: Int?, index: UInt64, width: Int = TileCoordinate.width) {
        self.level = level
        self.index = index
        self.width = width
    }

    /// Whether the tile is full (and so immutable).
    public var isFull: Bool { width == Self.width }

    /// The path under the log's prefix, e.g. `tile/0/x001/x234/067.p/8`.
    public var description: String {
        var parts: [String] = []
        var n = index
        repeat {
            parts.insert(String(format: "%03d", Int(n % 1000)), at: 0)
            n /= 1000
        } while n > 0
        let name = parts.enumerated().map { $0.offset < parts.count - 1 ? "x" + $0.element : $0.element }
            .joined(separator: "/")
        return "tile/\(level.map(String.init) ?? "entries")/\(name)" + (isFull ? "" : ".p/\(width)")
    }

    /// Parses a path like `tile/0/x001/234` or `tile/entries/000.p/12`; nil when it names no
    /// tile.
    public init?(path: String) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)[...]
        guard parts.popFirst() == "tile", let levelPart = parts.popFirst(), !parts.isEmpty else { return nil }
        if levelPart == "entries" {
            level = nil
        } else {
            guard let l = Int(levelPart), String(l) == levelPart, (0...63).contains(l) else { return nil }
            level = l
        }
        width = Self.width
        if parts.count >= 2, parts[parts.endIndex - 2].hasSuffix(".p") {
            guard let w = Int(parts.last!), String(w) == parts.last!, (1..<Self.width).contains(w) else { return nil }
            width = w
            parts.removeLast()
            parts[parts.endIndex - 1] = parts.last!.dropLast(2)
        }
        var n: UInt64 = 0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            let digits = last ? part : (part.first == "x" ? part.dropFirst() : "")
            guard digits.count == 3, digits.allSatisfy(\.isASCII), let v = UInt64(digits), digits.allSatisfy(\.isNumber) else {
                return nil
            }
            let (times, overflow) = n.multipliedReportingOverflow(by: 1000)
            guard !overflow, times <= UInt64.max - v else { return nil }
            n = times + v
        }
        index = n
    }

    /// The tiles a tree of `size` leaves is served as: every full tile of every level, the
    /// partial tile of each level whose width is not 0, and the entry bundles alike. With
    /// `old`, only those a tree of `old` leaves did not have (`old` ≤ `size`): a log that grows
    /// consistently never changes a tile it had.
    public static func tiles(treeSize size: UInt64, since old: UInt64 = 0) -> [TileCoordinate] {
        var tiles: [TileCoordinate] = []
        var level = 0
        var hashes = size  // hashes at this tile level: floor(size / 256^level)
        var oldHashes = min(old, size)
        while hashes > 0 {
            let full = hashes / UInt64(width), partial = Int(hashes % UInt64(width))
            let oldFull = oldHashes / UInt64(width), oldPartial = Int(oldHashes % UInt64(width))
            let unchangedPartial = oldFull == full && oldPartial == partial
            for kind in level == 0 ? [Int?.some(0), nil] : [Int?.some(level)] {
                for n in oldFull..<full { tiles.append(TileCoordinate(level: kind, index: n)) }
                if partial > 0, !unchangedPartial { tiles.append(TileCoordinate(level: kind, index: full, width: partial)) }
            }
            hashes /= UInt64(width)
            oldHashes /= UInt64(width)
            level += 1
        }
        return tiles
    }
}
