#ifndef RELAYFETCH_CLINUX_H
#define RELAYFETCH_CLINUX_H
// Swift's Glibc module does not export epoll or eventfd; the event loop needs both.
#include <sys/epoll.h>
#include <sys/eventfd.h>
// Nor mallopt, which the command-line tool tunes at start-up.
#include <malloc.h>
// Nor recvmmsg, sendmmsg and struct mmsghdr (GNU extensions): QUIC reads every waiting datagram,
// and sends the packets of one write, in one call.
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/// struct mmsghdr's layout (<sys/socket.h>): one datagram's message header and its received length.
struct rf_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// recvmmsg(2) without a timeout: up to `vlen` datagrams; -1 with errno set on failure.
static inline int rf_recvmmsg(int fd, struct rf_mmsghdr *vec, unsigned int vlen, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, vec, vlen, flags, (void *)0);
}
/// sendmmsg(2): up to `vlen` datagrams; the number sent, or -1 with errno set.
static inline int rf_sendmmsg(int fd, struct rf_mmsghdr *vec, unsigned int vlen, int flags) {
    return (int)syscall(SYS_sendmmsg, fd, vec, vlen, flags);
}
#endif
