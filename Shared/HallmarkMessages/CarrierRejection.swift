import HallmarkCore

/// The rejected form of a request carrier's result (`hallmark.sign.result.v1`,
/// `hallmark.encrypt.result.v1`): `status: rejected`, one reason, and neither headers nor
/// body, so it can never be chained on as a request (DESIGN §2: a refused input with a
/// readable id is answered on its stage's result topic too).
///
/// `Result` names the schema: `CarrierRejection<SignResult>` is a rejected sign result.
public struct CarrierRejection<Result: RejectableResult>: MessageBody, Equatable {
    /// The result's schema: a rejection is one of its forms.
    public static var schemaName: String { Result.schemaName }

    public var status = "rejected"
    /// A code the result's schema lists (`malformed`, `oversized`, `id_reused`, …).
    public var reason: Result.RejectionReason
    /// With `upstream_rejected`: the reason the rejected result carried.
    public var upstreamReason: String?

    public init(
        reason: Result.RejectionReason,
        upstreamReason: String? = nil
    ) {
        self.reason = reason
        self.upstreamReason = upstreamReason
    }

    enum CodingKeys: String, CodingKey {
        case status, reason
        case upstreamReason = "upstream_reason"
    }
}

/// A result with a rejected form: its schema lists the reasons it can carry.
public protocol RejectableResult: MessageBody {
    associatedtype RejectionReason: CarrierRejectionReason
}

/// The codes a rejected result can carry; a code its schema does not list is `malformed`.
public protocol CarrierRejectionReason: RawRepresentable<String>, CaseIterable, Codable, Hashable, Sendable {
    static var malformed: Self { get }
    static var upstreamRejected: Self { get }
}

extension CarrierRejectionReason {
    /// `code` when the schema lists it, else `malformed`.
    public init(code: String) { self = Self(rawValue: code) ?? .malformed }
}

extension RequestCarrier {
    /// The reason of a rejection that answers a rejected result given as the request.
    public static let upstreamRejected = "upstream_rejected"

    /// The reason a carrier's members say it is a rejected result (a `status` or `verdict` of
    /// `rejected`), which holds no request to pass on; nil for a request. A rejection that
    /// was itself `upstream_rejected` gives its `upstream_reason`, so the first stage's cause
    /// travels down a chain. Only a code-like reason is returned, so it can be carried into an
    /// answer as it is.
    public static func rejection(in fields: [String: JSONValue]) -> String? {
        guard fields["status"]?.string == "rejected" || fields["verdict"]?.string == "rejected" else { return nil }
        var reason = fields["reason"]?.string
        if reason == upstreamRejected { reason = fields["upstream_reason"]?.string }
        guard let reason, isCode(reason) else { return "malformed" }
        return reason
    }

    /// 1-64 of `a-z 0-9 _`, starting with a letter.
    static func isCode(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }
}
