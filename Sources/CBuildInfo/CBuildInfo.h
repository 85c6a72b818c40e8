#ifndef RELAYFETCH_CBUILDINFO_H
#define RELAYFETCH_CBUILDINFO_H
// Header-only shim: the git commit a release was built from, given by scripts/build-release.sh
// as -Xcc -DRELAYFETCH_COMMIT="...". Swift takes no string from a -D define, but this inline
// function is compiled with the build's C flags, so the define reaches `relayfetch version`;
// a plain `swift build` leaves it empty.
static inline const char *rf_build_commit(void) {
#ifdef RELAYFETCH_COMMIT
    return RELAYFETCH_COMMIT;
#else
    return "";
#endif
}
#endif
