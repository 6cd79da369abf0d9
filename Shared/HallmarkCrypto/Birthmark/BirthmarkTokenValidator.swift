import Foundation

/// FAIL reasons of BM-TOKEN validation, in the order they are checked.
public enum BirthmarkTokenReason: String, Error, Sendable, Hashable, CaseIterable {
    /// Bad shape: lengths, hex/base64, index outside 0...999, not three pairs.
    case malformed
    /// None of the named tables exists.
    case unknownTable = "unknown_table"
    /// No (table, index) key opens the token: tampered or forged.
    case authenticationFailed = "authentication_failed"
    /// The NUC hash belongs to no provisioned device.
    case unknownDevice = "unknown_device"
    /// The table that opened the token is not one of the device's three.
    case tableNotAssigned = "table_not_assigned"
    /// The device is blacklisted.
    case blacklisted
}

/// PASS or FAIL with one reason.
public enum BirthmarkTokenOutcome: Sendable, Hashable {
    /// The token is genuine and its device in good standing.
    case pass
    /// Rejected for one reason.
    case fail(BirthmarkTokenReason)

    /// True for `.pass`.
    public var isValid: Bool { self == .pass }
    /// The reason when failed.
    public var reason: BirthmarkTokenReason? {
        if case .fail(let r) = self { return r }
        return nil
    }
}

/// What the authority knows about a provisioned device.
public struct BirthmarkDeviceRecord: Sendable, Hashable {
    /// The three tables assigned at provisioning.
    public var assignedTables: Set<Int>
    /// Whether the device was blacklisted.
    public var blacklisted: Bool

    /// Creates a record.
    public init(assignedTables: Set<Int>, blacklisted: Bool = false) {
        self.assignedTables = assignedTables
        self.blacklisted = blacklisted
    }
}

/// A token that decrypted: the NUC hash and the (table, index) that opened it.
public struct BirthmarkOpenedToken: Sendable, Hashable {
    /// The camera's 32-byte NUC hash (look devices up by its blind index).
    public let nucHash: Data
    /// The table whose key opened it.
    public let tableId: Int
    /// The key index used.
    public let keyIndex: Int
}

/// Authority-side validation, split so the caller can do its lookups in between:
/// `open` (needs the master keys of `token.referencedTables`), then `judge` (needs the
/// device record found by the NUC hash's blind index).
public enum BirthmarkTokenValidator {
    /// Decrypts the token. `masterKeys` maps table id → 32-byte master key for the tables
    /// the authority has; missing tables give `unknown_table`.
    public static func open(
        _ token: BirthmarkToken,
        masterKeys: [Int: Data]
    ) -> Result<BirthmarkOpenedToken, BirthmarkTokenReason> {
        openSealed(token, masterKeys: masterKeys).map(\.opened)
    }

    /// ``open(_:masterKeys:)``, with the token's decoded nonce, ciphertext and tag as it read
    /// them: for a caller that keys a record by them, without decoding the token again.
    public static func openSealed(
        _ token: BirthmarkToken,
        masterKeys: [Int: Data]
    ) -> Result<(opened: BirthmarkOpenedToken, sealed: AESGCM256.Sealed), BirthmarkTokenReason> {
        switch token {
        case .reference(let t):
            guard BirthmarkKeys.keyIndices.contains(t.keyIndex), t.tableId >= 0,
                let parts = try? t.sealedParts()
            else { return .failure(.malformed) }
            guard let master = masterKeys[t.tableId], master.count == 32 else { return .failure(.unknownTable) }
            guard let key = try? BirthmarkKeys.derive(master: master, keyIndex: t.keyIndex, format: .reference),
                let nuc = try? AESGCM256.open(parts, key: key)
            else { return .failure(.authenticationFailed) }
            return .success((BirthmarkOpenedToken(nucHash: nuc, tableId: t.tableId, keyIndex: t.keyIndex), parts))
        case .mobile(let t):
            guard let pairs = try? t.pairs(), let parts = try? t.sealedParts(),
                pairs.allSatisfy({ BirthmarkKeys.keyIndices.contains($0.keyIndex) && $0.tableId >= 0 })
            else {
                return .failure(.malformed)
            }
            var anyKnown = false
            var openedBadPlaintext = false
            for pair in pairs {
                guard let master = masterKeys[pair.tableId], master.count == 32 else { continue }
                anyKnown = true
                do {
                    let nuc = try t.open(master: master, keyIndex: pair.keyIndex)
                    return .success((BirthmarkOpenedToken(nucHash: nuc, tableId: pair.tableId, keyIndex: pair.keyIndex), parts))
                } catch  where error.code != .authenticationFailed {
                    openedBadPlaintext = true  // authentic, but not a 64-hex-digit fingerprint
                } catch {}
            }
            if openedBadPlaintext { return .failure(.malformed) }
            return .failure(anyKnown ? .authenticationFailed : .unknownTable)
        }
    }

    /// Checks the opened token against the device found for its NUC hash (nil: none).
    public static func judge(_ opened: BirthmarkOpenedToken, device: BirthmarkDeviceRecord?) -> BirthmarkTokenOutcome {
        guard let device else { return .fail(.unknownDevice) }
        guard device.assignedTables.contains(opened.tableId) else { return .fail(.tableNotAssigned) }
        return device.blacklisted ? .fail(.blacklisted) : .pass
    }

    /// Both steps with synchronous lookups.
    public static func validate(
        _ token: BirthmarkToken, masterKeys: [Int: Data],
        device: (Data) -> BirthmarkDeviceRecord?
    ) -> BirthmarkTokenOutcome {
        switch open(token, masterKeys: masterKeys) {
        case .failure(let reason): return .fail(reason)
        case .success(let opened): return judge(opened, device: device(opened.nucHash))
        }
    }
}
