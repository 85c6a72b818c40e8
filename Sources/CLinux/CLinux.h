#ifndef RELAYFETCH_CLINUX_H
#define RELAYFETCH_CLINUX_H
// Swift's Glibc module does not export epoll or eventfd; the event loop needs both.
#include <sys/epoll.h>
#include <sys/eventfd.h>
// Only macros (system call numbers).
#include <sys/syscall.h>
#include <stddef.h>

// What follows is declared here rather than by including <sys/socket.h>, <malloc.h> or <unistd.h>:
// a header that Glibc's module also includes, pulled into this module as well, leaves Swift with
// two copies of its types (a clean build then failed to find SOCK_STREAM in TCPLayer.swift, or
// found it, depending on which module clang built first).

/// syscall(2), as <unistd.h> declares it.
extern long syscall(long number, ...);

/// mallopt(3) and the two parameters the command-line tool sets (<malloc.h>'s values).
extern int mallopt(int parameter, int value);
#define RF_M_TRIM_THRESHOLD (-1)
#define RF_M_MMAP_THRESHOLD (-3)

/// mallinfo2(3)'s counts (<malloc.h>'s struct mallinfo2, every field a size_t), under names of
/// ours for the reason above.
struct rf_mallinfo2 {
    size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};
extern struct rf_mallinfo2 rf_mallinfo2(void) __asm__("mallinfo2");
/// The bytes glibc's malloc has handed out and not had back, over all arenas (chunks in use plus
/// chunks of their own mapping): the tests' gauge of what the code holds, which the resident
/// size does not show while pages stay untouched or freed ones stay mapped.
static inline size_t rf_heap_bytes_in_use(void) {
    struct rf_mallinfo2 counts = rf_mallinfo2();
    return counts.uordblks + counts.hblkhd;
}

/// Extended attributes (<sys/xattr.h>, which Glibc's module leaves out): a download keeps its
/// ETag in one, for If-Range on a later resume. Return -1 with errno set on failure.
extern int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
extern int fremovexattr(int fd, const char *name);
extern long getxattr(const char *path, const char *name, void *value, size_t size);

/// struct msghdr's layout on LP64 Linux (<bits/socket.h>), with untyped pointers.
struct rf_msghdr {
    void *msg_name;
    unsigned int msg_namelen;
    void *msg_iov;            // struct iovec *
    size_t msg_iovlen;
    void *msg_control;
    size_t msg_controllen;
    int msg_flags;
};

/// struct mmsghdr's layout (<sys/socket.h>, a GNU extension Glibc's module leaves out): one
/// datagram's message header and its received length.
struct rf_mmsghdr {
    struct rf_msghdr msg_hdr;
    unsigned int msg_len;
};

_Static_assert(sizeof(struct rf_msghdr) == 56, "struct msghdr is 56 bytes on LP64 Linux");
_Static_assert(sizeof(struct rf_mmsghdr) == 64, "struct mmsghdr is 64 bytes on LP64 Linux");

/// recvmmsg(2) without a timeout: up to `vlen` datagrams; -1 with errno set on failure.
static inline int rf_recvmmsg(int fd, struct rf_mmsghdr *vec, unsigned int vlen, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, vec, vlen, flags, (void *)0);
}
/// sendmmsg(2): up to `vlen` datagrams; the number sent, or -1 with errno set.
static inline int rf_sendmmsg(int fd, struct rf_mmsghdr *vec, unsigned int vlen, int flags) {
    return (int)syscall(SYS_sendmmsg, fd, vec, vlen, flags);
}

/// UDP generic segmentation offload (udp(7), <linux/udp.h>): a message whose control data holds
/// an RF_UDP_SEGMENT control message is cut by the kernel into datagrams of that many bytes.
/// struct cmsghdr's layout on LP64 Linux; RF_UDP_SEGMENT_SPACE is CMSG_SPACE(sizeof(uint16_t)).
#define RF_SOL_UDP 17
#define RF_UDP_SEGMENT 103
#define RF_UDP_SEGMENT_SPACE 24
struct rf_cmsghdr {
    size_t cmsg_len;
    int cmsg_level;
    int cmsg_type;
};
_Static_assert(sizeof(struct rf_cmsghdr) == 16, "struct cmsghdr is 16 bytes on LP64 Linux");
/// Writes the segment-size control message into `control` (RF_UDP_SEGMENT_SPACE bytes, 8-aligned).
static inline void rf_fill_udp_segment(void *control, unsigned short size) {
    struct rf_cmsghdr *header = (struct rf_cmsghdr *)control;
    header->cmsg_len = sizeof(struct rf_cmsghdr) + sizeof(unsigned short);
    header->cmsg_level = RF_SOL_UDP;
    header->cmsg_type = RF_UDP_SEGMENT;
    __builtin_memset((char *)control + header->cmsg_len, 0, RF_UDP_SEGMENT_SPACE - header->cmsg_len);
    __builtin_memcpy((char *)control + sizeof(struct rf_cmsghdr), &size, sizeof size);
}

/// UDP generic receive offload (udp(7)): with the RF_UDP_GRO socket option on, a message may hold
/// several datagrams, cut at the int in its RF_UDP_GRO control message. RF_UDP_GRO_SPACE is
/// CMSG_SPACE(sizeof(int)).
#define RF_UDP_GRO 104
#define RF_UDP_GRO_SPACE 24
/// The segment size in a received message's control data, or 0 when it has none (one datagram).
static inline int rf_udp_gro_size(const void *control, size_t length) {
    size_t offset = 0;
    while (control && offset + sizeof(struct rf_cmsghdr) <= length) {
        const struct rf_cmsghdr *header = (const struct rf_cmsghdr *)((const char *)control + offset);
        if (header->cmsg_len < sizeof(struct rf_cmsghdr)) return 0;
        if (header->cmsg_level == RF_SOL_UDP && header->cmsg_type == RF_UDP_GRO
            && header->cmsg_len >= sizeof(struct rf_cmsghdr) + sizeof(int)) {
            int size;
            __builtin_memcpy(&size, (const char *)header + sizeof(struct rf_cmsghdr), sizeof size);
            return size;
        }
        offset += (header->cmsg_len + 7) & ~(size_t)7;
    }
    return 0;
}
#endif
