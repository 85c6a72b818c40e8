# relayfetch: `make install PREFIX=/usr/local` builds the release binary (static Swift runtime)
# and installs it with its man pages and bash, zsh and fish completions; scripts/install.sh does
# the work (DESTDIR stages it, BINARY installs an already-built binary instead of building).
PREFIX ?= /usr/local
DESTDIR ?=
BINARY ?=

.PHONY: all release install uninstall deb test quick
all: release

release:
	bash scripts/build-release.sh

install:
	bash scripts/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)" $(if $(BINARY),--binary "$(BINARY)")

uninstall:
	bash scripts/install.sh --uninstall --prefix "$(PREFIX)" --destdir "$(DESTDIR)"

deb:
	bash scripts/package-deb.sh

test:
	bash scripts/test.sh

quick:
	bash scripts/test.sh --quick
