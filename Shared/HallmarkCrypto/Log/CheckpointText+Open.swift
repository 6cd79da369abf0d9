import Foundation

extension CheckpointText {
    /// Opens a log's checkpoint note with its `vkey`, as C2SP tlog-checkpoint says: the note
    /// verifies, carries the key's Ed25519 signature (a timestamped cosignature by the same key
    /// is checked too, never enough alone), and its checkpoint's origin is the key's name.
    /// Throws `authentication_failed` or `malformed_note`.
    public static func open(_ note: SignedNote, vkey: NoteVerifierKey) throws(HallmarkCryptoError) -> CheckpointText {
        let verified = try note.verified(by: [vkey, vkey.for(.cosignatureV1)])
        guard verified.contains(where: { $0.key == vkey }) else {
            throw HallmarkCryptoError(.authenticationFailed, "the log did not sign the checkpoint")
        }
        let text = try CheckpointText(parsing: note.text)
        guard text.origin == vkey.name else {
            throw HallmarkCryptoError(.authenticationFailed, "the checkpoint's origin is not the key's name")
        }
        return text
    }
}
