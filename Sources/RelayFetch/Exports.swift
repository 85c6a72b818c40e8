// Relay errors, hop reports and protocol choices are part of RelayFetch's public API.
@_exported import RelayTransport
