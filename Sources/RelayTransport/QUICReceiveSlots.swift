/// The receive slots every QUIC socket of one event loop reads into: with UDP GRO, 16 slots of
/// 64 KiB and their control buffers (`DatagramCoalescing`), else 64 slots of one datagram each.
/// A socket reads its datagrams into them and hands every one to its connection before the loop
/// moves on (`QUICConnection` reads until the socket has none left), so one set per loop thread
/// serves all its sockets: 1 MiB per loop instead of 1 MiB per socket. `holder` names the socket
/// whose datagrams the slots hold; a socket that finds another's there reads afresh. Each set is
/// made on first use. Loop thread only.
final class QUICReceiveSlots {
    private var coalescingSlots: DatagramCoalescing?
    private var plainSlots: DatagramSlots?
    /// The socket that read last; its datagrams are in the slots.
    var holder: ObjectIdentifier?

    /// The slots for sockets with receive offload on.
    var coalescing: DatagramCoalescing {
        if let coalescingSlots { return coalescingSlots }
        let made = DatagramCoalescing()
        coalescingSlots = made
        return made
    }

    /// The slots for sockets that read one datagram per message.
    var plain: DatagramSlots {
        if let plainSlots { return plainSlots }
        let made = DatagramSlots(count: QUICSocket.batch, size: QUICClientSetup.largestDatagram)
        plainSlots = made
        return made
    }
}
