import Foundation

/// A `multipart/form-data` body (RFC 7578 / RFC 2046) split into its parts, every byte kept:
/// the preamble, each part's raw header block and body, and the epilogue. Rebuilding an
/// unchanged body gives back the same bytes, so only the parts the gateway replaces change.
///
/// Parsing is strict and linear (see ``find(_:in:from:)``), the
/// number of parts is bounded, and anything that is not a well-formed body throws
/// ``MultipartError``.
package struct MultipartBody: Sendable, Equatable {
    /// One part: its header lines as sent (without the blank line) and its body.
    package struct Part: Sendable, Equatable {
        package var rawHeaders: [UInt8]
        package var body: [UInt8]

        package init(rawHeaders: [UInt8], body: [UInt8]) {
            self.rawHeaders = rawHeaders
            self.body = body
        }

        /// A form field part with `name` and the given content type (and transfer encoding).
        package init(field name: String, contentType: String, transferEncoding: String? = nil, body: [UInt8]) {
            var lines = ["Content-Disposition: form-data; name=\"\(name)\"", "Content-Type: \(contentType)"]
            if let transferEncoding { lines.append("Content-Transfer-Encoding: \(transferEncoding)") }
            self.init(rawHeaders: Array(lines.joined(separator: "\r\n").utf8), body: body)
        }

        /// The header lines as (lowercased name, trimmed value).
        package var headers: [(name: String, value: String)] {
            guard !rawHeaders.isEmpty else { return [] }
            return String(decoding: rawHeaders, as: UTF8.self).components(separatedBy: "\r\n").compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
        }

        /// The form field name from `Content-Disposition: form-data; name="…"`.
        package var name: String? {
            guard let disposition = headers.first(where: { $0.name == "content-disposition" })?.value else { return nil }
            return Self.parameter("name", in: disposition)
        }

        /// A `key=token` or `key="quoted-string"` parameter of a header value (RFC 2045 §5.1):
        /// a `;` inside quotes does not end it (``HeaderParameters``).
        static func parameter(_ key: String, in value: String) -> String? {
            HeaderParameters.value(key, in: value)
        }
    }

    /// Most parts one body may have.
    package static let maximumParts = 1000

    package var boundary: String
    /// What precedes the first delimiter; nil when the body starts with it (an empty preamble
    /// still had a CRLF before the delimiter).
    package var preamble: [UInt8]?
    package var parts: [Part]
    /// What follows the closing delimiter (usually `\r\n` or nothing).
    package var epilogue: [UInt8]

    /// The boundary of a `multipart/form-data` content type; nil for any other type.
    package static func boundary(contentType: String) -> String? {
        let type = contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "multipart/form-data" else { return nil }
        return Part.parameter("boundary", in: contentType) ?? ""
    }

    /// Whether `boundary` is one RFC 2046 allows: 1–70 `bchars`, not ending in a space.
    package static func isValid(boundary: String) -> Bool {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        return (1...70).contains(boundary.utf8.count) && boundary.utf8.allSatisfy(allowed.contains)
            && boundary.utf8.last != UInt8(ascii: " ")
    }

    /// Splits `body` at `boundary`.
    package init(parsing body: [UInt8], boundary: String) throws(MultipartError) {
        guard Self.isValid(boundary: boundary) else { throw MultipartError("the boundary is missing or invalid") }
        self.boundary = boundary
        let dash = Array("--\(boundary)".utf8)
        let crlfDash = [13, 10] + dash
        // The first delimiter opens the body or follows a CRLF ending the preamble.
        var position: Int
        if body.starts(with: dash) {
            preamble = nil
            position = dash.count
        } else {
            guard let found = Self.find(crlfDash, in: body, from: 0) else { throw MultipartError("no boundary delimiter") }
            preamble = Array(body[..<found])
            position = found + crlfDash.count
        }
        parts = []
        while true {
            if body.count - position >= 2, body[position] == 45, body[position + 1] == 45 {
                epilogue = Array(body[(position + 2)...])
                return
            }
            // Transport padding, then the CRLF that ends the delimiter line.
            while position < body.count, body[position] == 32 || body[position] == 9 { position += 1 }
            guard body.count - position >= 2, body[position] == 13, body[position + 1] == 10 else {
                throw MultipartError("a delimiter line does not end in CRLF")
            }
            position += 2
            guard let end = Self.find(crlfDash, in: body, from: position) else {
                throw MultipartError("a part has no closing delimiter")
            }
            let part = body[position..<end]
            let headers: [UInt8], content: [UInt8]
            if part.starts(with: [13, 10]) {
                (headers, content) = ([], Array(part.dropFirst(2)))
            } else if let blank = Self.find([13, 10, 13, 10], in: body, from: position), blank + 4 <= end {
                // `<= end`, not `< end`: a header line's CRLF followed by the delimiter's own CRLF
                // is no blank line (a fuzz finding: it trapped on the range below).
                (headers, content) = (Array(body[position..<blank]), Array(body[(blank + 4)..<end]))
            } else {
                throw MultipartError("a part's headers do not end in a blank line")
            }
            guard parts.count < Self.maximumParts else { throw MultipartError("more than \(Self.maximumParts) parts") }
            parts.append(Part(rawHeaders: headers, body: content))
            position = end + crlfDash.count
        }
    }

    /// The body's bytes: preamble, parts, closing delimiter, epilogue.
    package var bytes: [UInt8] {
        var out = preamble ?? []
        let dash = Array("--\(boundary)".utf8)
        for (i, part) in parts.enumerated() {
            if i > 0 || preamble != nil { out += [13, 10] }
            out += dash + [13, 10] + part.rawHeaders + (part.rawHeaders.isEmpty ? [13, 10] : [13, 10, 13, 10]) + part.body
        }
        if !parts.isEmpty || preamble != nil { out += [13, 10] }
        out += dash + [45, 45] + epilogue
        return out
    }

    /// The index of the one part named `name`; nil when there is none. A name sent twice is
    /// ambiguous (which one would be meant?) and throws.
    package func uniquePart(named name: String) throws(MultipartError) -> Int? {
        let indices = parts.indices.filter { parts[$0].name == name }
        guard indices.count <= 1 else { throw MultipartError("the field \(name) appears more than once") }
        return indices.first
    }

    /// Whether `content` could be a part body here: it must not contain a delimiter.
    package func canHold(_ content: [UInt8]) -> Bool {
        Self.find([13, 10] + Array("--\(boundary)".utf8), in: [13, 10] + content + [13, 10], from: 0) == nil
    }

    /// The first index of `needle` in `haystack` at or after `from`. Candidates are found with
    /// `memchr` on the needle's first byte (CR for every needle here); a comparison from one
    /// candidate stops at the next CR at the latest, since a delimiter holds none after its
    /// first (and `CRLFCRLF` is four bytes), so the search is linear in the haystack.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, from <= haystack.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Int? in
            guard let base = hay.baseAddress else { return nil }
            var i = from
            while hay.count - i >= needle.count {
                guard let hit = memchr(base + i, Int32(first), hay.count - i) else { return nil }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                guard hay.count - at >= needle.count else { return nil }
                var k = 1
                while k < needle.count, hay[at + k] == needle[k] { k += 1 }
                if k == needle.count { return at }
                i = at + 1
            }
            return nil
        }
    }
}

/// A multipart body the gateway cannot take; `reason` names the rule, never content.
package struct MultipartError: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { "malformed multipart body: \(reason)" }
}
