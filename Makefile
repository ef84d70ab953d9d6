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

.PHONY: all deps build run test docs check-docs install install-units uninstall deb bench fuzz clean

all: build

deps:
	@scripts/install-deps

# Release binaries link the Swift runtime and libstdc++ statically (Debian ships no Swift runtime;
# see scripts/static-runtime) and every C library as Debian's shared one, so that security updates
# of libpng, libjpeg, zlib, libsodium and OpenSSL apply (issue #16): libpng (+ zlib), libjpeg,
# libsodium and libqrencode are linked, which costs `clawpair --version` about 0.3 ms over the
# static copies (bench/startup, same machine and run: 1.63 -> 1.90 ms, 1.75x -> 2.02x
# `qrencode -V`; goal <= 3x). Three stay loaded with dlopen on first use, each from its Debian
# package by soname (scripts/build-deb declares them in Depends): OpenSSL (TLS commands only;
# libssl + libcrypto are 5.4 MB with ~24,000 relocations, and preloading them took
# `clawpair --version` from 3.1 to 7.3 ms on a busy machine),
# libavahi-client (its libdbus/libsystemd/libgcrypt chain, ~0.7 ms a command; browse and advertise)
# and zbar (qr scan only, with its own chain of image libraries).
# They stay position-independent (ASLR) and start about as fast as a non-PIE build:
# - lld packs the ~24,000 relative relocations (the Swift runtime's and the program's metadata)
#   as DT_RELR (glibc >= 2.36): a few KiB instead of ~0.5 MiB of .rela.dyn read at every start;
# - --no-export-dynamic keeps the executable's ~5,000 Swift symbols out of the dynamic symbol
#   table, which every symbol lookup of the loader searches first (crash backtraces still name
#   functions: they read .symtab; the .deb strips it, as Debian does).
# - --disable-local-rpath leaves out SwiftPM's RUNPATH $ORIGIN: the runtime is static, so it found
#   nothing there, and the loader tried about ten paths under the binary's directory for each
#   library before the system's (80 failed openat calls at every start, more with each dlopen).
# Together about 1.3 ms off every command's start-up here (bench/startup, bench/qr).
# PIE=0 links a non-PIE executable instead (no ASLR for the executable image): the relocated
# pages' ~40 copy-on-write faults, about 0.1-0.2 ms, are all it saves.
PIE ?= 1
LINK_PIE := $(if $(filter 0,$(PIE)),-Xlinker -no-pie,-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs) \
	-Xlinker --no-export-dynamic
STATIC_RUNTIME := $(CURDIR)/.build/static-runtime
LINK_RUNTIME := -Xlinker -L$(STATIC_RUNTIME) -Xlinker -l:libgcc_eh.a
build: deps
	@scripts/static-runtime $(STATIC_RUNTIME)
	$(SWIFT) build -c $(CONFIG) --product clawpair --static-swift-stdlib --disable-local-rpath $(LINK_RUNTIME) $(LINK_PIE)

# The main job (scripts/run-demo): the help, a setup code made and decoded, then, as root in
# throw-away network namespaces, discovery of a demo gateway and a node paired with it.
run: build
	@scripts/run-demo $(BIN)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

# Regenerates Man/ and Completions/ from the command declarations and Man/sections/ (commit the result).
docs: build
	$(BIN) generate-docs .

install: build install-units
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/clawpair
	install -m 0644 Man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 Completions/clawpair.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/clawpair
	install -m 0644 Completions/_clawpair $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_clawpair
	install -m 0644 Completions/clawpair.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/clawpair.fish

# The systemd units for `clawpair advertise` and `clawpair node` (packaging/systemd): the system
# units and the user units, in $(PREFIX)/lib/systemd/{system,user} (systemd searches /usr/local/lib/systemd/* too),
# their ExecStart pointed at $(PREFIX)/bin/clawpair. Tests/clawpairTests/SystemdUnitTests.swift
# runs this target and checks the result with systemd-analyze verify.
UNIT_DIR = $(DESTDIR)$(PREFIX)/lib/systemd
install-units:
	install -d $(UNIT_DIR)/system $(UNIT_DIR)/user
	sed 's|/usr/bin/clawpair|$(PREFIX)/bin/clawpair|' packaging/systemd/clawpair-advertise@.service \
	  > $(UNIT_DIR)/system/clawpair-advertise@.service
	sed 's|/usr/bin/clawpair|$(PREFIX)/bin/clawpair|' packaging/systemd/clawpair-advertise.service \
	  > $(UNIT_DIR)/user/clawpair-advertise.service
	sed 's|/usr/bin/clawpair|$(PREFIX)/bin/clawpair|' packaging/systemd/clawpair-node.system.service \
	  > $(UNIT_DIR)/system/clawpair-node.service
	sed 's|/usr/bin/clawpair|$(PREFIX)/bin/clawpair|' packaging/systemd/clawpair-node.user.service \
	  > $(UNIT_DIR)/user/clawpair-node.service
	chmod 0644 $(UNIT_DIR)/system/clawpair-advertise@.service $(UNIT_DIR)/user/clawpair-advertise.service \
	  $(UNIT_DIR)/system/clawpair-node.service $(UNIT_DIR)/user/clawpair-node.service

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/systemd/system/clawpair-advertise@.service \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/clawpair-advertise.service \
	  $(DESTDIR)$(PREFIX)/lib/systemd/system/clawpair-node.service \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/clawpair-node.service
	rm -f $(DESTDIR)$(PREFIX)/bin/clawpair $(DESTDIR)$(PREFIX)/share/man/man1/clawpair*.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/clawpair \
	  $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_clawpair \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/clawpair.fish

# clawpair_<version>_<arch>.deb in .build/deb (scripts/build-deb: dpkg-deb, dpkg-shlibdeps, lintian).
# DEB_MAINTAINER="Full Name <address>" sets its Maintainer (packaging/deb/README.md).
export DEB_MAINTAINER
deb: build
	@scripts/build-deb $(BIN) .build/deb

bench: build
	@bench/run-all $(BIN)

fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run

clean:
	rm -rf .build Fuzz/.build
