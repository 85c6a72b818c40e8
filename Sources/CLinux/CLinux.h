#ifndef RELAYFETCH_CLINUX_H
#define RELAYFETCH_CLINUX_H
// Swift's Glibc module does not export epoll or eventfd; the event loop needs both.
#include <sys/epoll.h>
#include <sys/eventfd.h>
// Nor mallopt, which the command-line tool tunes at start-up.
#include <malloc.h>
#endif
