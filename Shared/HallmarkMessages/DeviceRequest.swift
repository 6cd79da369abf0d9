/// `hallmark.device.request.v1`: the aggregator's question about a certificate bundle's camera
/// (DESIGN BM-CERT): is the device the certificate's sealed handle names provisioned and not
/// blacklisted? It carries the handle and the certificate serial it is bound to, and nothing
/// else: never the certificate, an image hash or a capture time.
public struct DeviceRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.device.request.v1"

    /// The certificate's handle (1.3.6.1.4.1.99999.1), base64: sealed under the authority's KEK.
    public var handle: String
    /// The certificate's serial, lower-case hex: what the handle is bound to.
    public var certificateSerial: String

    public init(handle: String, certificateSerial: String) {
        self.handle = handle
        self.certificateSerial = certificateSerial
    }

    enum CodingKeys: String, CodingKey {
        case handle
        case certificateSerial = "certificate_serial"
    }
}
