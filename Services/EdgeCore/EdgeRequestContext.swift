import Hummingbird
import NIOCore

/// The edge's request context: Hummingbird's core, and the connection's peer (the client, or the
/// proxy in front of it) for the rate limit.
package struct EdgeRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let remoteAddress: SocketAddress?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
