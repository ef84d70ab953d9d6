# clawpair — build, run, test, install, benchmark and fuzz.
#   make run     the main job (see README.md)
#   make test    the whole test suite (what .ci/run calls)
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= release
FUZZ_SECONDS ?= 60
BIN := .build/$(CONFIG)/clawpair

.PHONY: all deps build run test docs check-docs install uninstall bench fuzz clean

all: build

deps:
	@scripts/install-deps

# Release binaries link the Swift runtime, libstdc++ and most C libraries statically (fast start-up,
# see scripts/static-pkgconfig) and, unless PIE=1, are not position-independent: a PIE has ~48,000
# relative relocations (OpenSSL's tables, the Swift runtime, libdispatch) that the dynamic loader
# applies at every start, copying ~190 pages of data; that is about a millisecond of each command's
# start-up here (bench/startup, bench/qr). PIE=1 keeps ASLR for the executable's own code and data.
PIE ?= 0
LINK_PIE := $(if $(filter 0,$(PIE)),-Xlinker -no-pie,)
build: deps
	@scripts/static-pkgconfig .build/static-pkgconfig
	PKG_CONFIG_PATH=$(CURDIR)/.build/static-pkgconfig $(SWIFT) build -c $(CONFIG) --product clawpair --static-swift-stdlib $(LINK_PIE)

# The main job. Until discovery lands: the help, then a sample setup code decoded.
run: build
	@scripts/run-demo $(BIN)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

# Regenerates Man/ and Completions/ from the command declarations (commit the result).
docs: build
	$(BIN) generate-docs .

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/clawpair
	install -m 0644 Man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 Completions/clawpair.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/clawpair
	install -m 0644 Completions/_clawpair $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_clawpair
	install -m 0644 Completions/clawpair.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/clawpair.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/clawpair $(DESTDIR)$(PREFIX)/share/man/man1/clawpair*.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/clawpair \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_clawpair \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/clawpair.fish

bench: build
	@bench/run-all $(BIN)

fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run

clean:
	rm -rf .build Fuzz/.build
