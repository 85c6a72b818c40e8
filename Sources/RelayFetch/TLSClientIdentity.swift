// The client certificate a relay hop presents (`ProxyConfiguration.TLSOptions.clientIdentity`):
// the transport's own struct, re-exported so that `import RelayFetch` gives it; no twin to map
// by hand.
@_exported import struct RelayTransport.TLSClientIdentity
