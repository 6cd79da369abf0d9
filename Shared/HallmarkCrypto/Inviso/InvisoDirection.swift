/// Direction of an E2EE-1 message; its byte enters the message-key derivation.
public enum InvisoDirection: UInt8, Sendable, Hashable, CaseIterable {
    /// Client → gateway (`0x01`).
    case clientToGateway = 1
    /// Gateway → client (`0x02`).
    case gatewayToClient = 2
}
