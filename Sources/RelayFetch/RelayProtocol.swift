import RelayTransport
// How one relay is spoken to (`ProxyConfiguration.RelayHop.relayProtocol`): the transport's own
// enum, re-exported so that `import RelayFetch` gives it, and the chain builder's registry is
// keyed by what callers set; no twin to map by hand.
@_exported import enum RelayTransport.RelayProtocol
