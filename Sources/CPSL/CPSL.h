#ifndef RELAYFETCH_CPSL_H
#define RELAYFETCH_CPSL_H
// Header-only shim: the cookie jar asks libpsl which domains are public suffixes.
#include <libpsl.h>
#endif
