import HTTPTypes

/// The security headers of the edge's own pages (`/ops`, `/verify`): a strict
/// Content-Security-Policy that allows only the page's own script, style and requests (and
/// images from `data:` where a page draws them), no sniffing, no referrer, no framing.
enum PageHeaders {
    /// The headers of a page's file of `contentType`; `dataImages` allows `data:` images.
    static func of(_ contentType: String, dataImages: Bool = false) -> HTTPFields {
        let images = dataImages ? " img-src 'self' data:;" : ""
        return [
            .contentType: contentType, .cacheControl: "no-cache",
            .contentSecurityPolicy:
                "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';\(images) base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Frame-Options")!: "DENY",
        ]
    }
}
