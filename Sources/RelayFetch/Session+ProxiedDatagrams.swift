import RelayTransport

extension Session {
    /// The thread that runs this session's relay connections: a local proxy's UDP association
    /// lives there, beside the flows it opens.
    package var transportLoop: EventLoop { opener.loop }

    /// Opens a CONNECT-UDP flow to `target` through `hops` on this session's transport; call on
    /// `transportLoop`. See `RelayChainBuilder.openDatagramFlow`.
    package func openDatagramFlow(hops: [RelayEndpoint], to target: TunnelTarget,
                                  completion: @escaping (Result<DatagramFlow, RelayError>) -> Void) {
        opener.builder.openDatagramFlow(hops: hops, to: target, connectTimeout: opener.connectTimeout, completion: completion)
    }
}

extension Session {
    /// Whether any relay configuration of this session ends in an HTTP/3 hop without a TCP
    /// fallback, the only kind that opens CONNECT-UDP flows.
    package var carriesDatagrams: Bool {
        configuration.proxyConfigurations.contains { proxy in
            guard proxy.obliviousHTTP == nil, let last = proxy.relayHops.last,
                  let endpoint = try? last.endpoint(index: proxy.relayHops.count) else { return false }
            return endpoint.relayProtocol == .http3 && endpoint.fallback == nil
        }
    }
}
