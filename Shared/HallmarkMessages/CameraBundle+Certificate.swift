extension CameraBundle {
    /// A certificate bundle (DESIGN BM-CERT) as the reference's `CertificateBundle` reads it:
    /// `image_hash` (hex, either case), `camera_cert` and `bundle_signature` (strings, passed on
    /// exactly as sent: the iOS form signs the certificate as sent, and the aggregator judges
    /// both), `timestamp`, optional `gps_hash` and `owner_hash`. `software_cert` must be a string
    /// or null, as the reference requires, and goes no further; so does `isp_validation`, which
    /// the reference ignores.
    static func certificateBundle(_ r: Reader) throws(Refusal) -> Submission {
        if r.present("software_cert") { _ = try r.string("software_cert") }
        return Submission(
            certificateBundle: try r.hex("image_hash"), cameraCert: try r.string("camera_cert"),
            bundleSignature: try r.string("bundle_signature"), timestamp: try r.timestamp(),
            gpsHash: try r.optionalHex("gps_hash"), ownerHash: try r.optionalHex("owner_hash"))
    }
}
