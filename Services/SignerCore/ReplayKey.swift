import HallmarkCore

/// What makes an accepted request a replay when it comes again (DESIGN SIGN-1): the partner
/// and the MAC, or for a zip upload — whose MAC covers no header — the MAC alone.
package struct ReplayKey: Sendable, Hashable {
    /// The partner id; nil for a zip upload.
    package let partner: String?
    /// The MAC as sent (44 base64 characters).
    package let mac: String

    package init(partner: String?, mac: String) {
        self.partner = partner
        self.mac = mac
    }

    /// A partner id fit to be a key: 1–128 printable ASCII characters. Anything else makes
    /// the request `malformed`.
    package static func isValidPartner(_ partner: String) -> Bool {
        Redaction.isPrintableASCII(partner, limit: 128)
    }
}
