#pragma once
// The socket side of clawpair's D-Bus client for avahi-daemon (ClawpairAvahi speaks the
// messages, ClawpairDBus encodes them): find the system bus, connect, and send the
// authentication and the first messages in one write, the way sd-bus pipelines them, so a
// browse request reaches avahi-daemon one round trip after connect() instead of seven
// (libavahi-client's Hello, three AddMatch, Ping, GetAPIVersion, GetState). No libdbus: loading
// it (with libsystemd and libgcrypt) costs about 1 ms. Plain C so that a constructor can call
// it before main (CAvahiBus_prestart).
#include <stddef.h>
#include <stdint.h>

/// Connects to the system bus: the first `unix:path=` or `unix:abstract=` address of
/// DBUS_SYSTEM_BUS_ADDRESS, else unix:path=/var/run/dbus/system_bus_socket. Then writes a NUL
/// byte, `AUTH EXTERNAL <uid>`, `BEGIN` and `messages` (marshalled D-Bus messages, Hello first).
/// Returns the socket (non-blocking, close-on-exec): its input starts with the server's
/// authentication reply line (`OK <guid>` or `REJECTED …`), then messages. Returns -1 with errno
/// set: EAFNOSUPPORT when no address is a Unix socket (tcp: and the like: use libdbus), else
/// connect()'s or send()'s error (ENOENT, ECONNREFUSED: no bus there).
int CAvahiBus_connect(const uint8_t *messages, size_t length);

/// Writes all of `bytes` to the non-blocking socket `fd`, waiting up to a second in all for room
/// (a socket to the bus rarely has none). Returns 0, or -1 with errno set.
int CAvahiBus_send(int fd, const uint8_t *bytes, size_t length);

/// CAvahiBus_connect now, the socket kept for CAvahiBus_take: a program that knows before its
/// own set-up that it will send these messages gets them to the daemon that much earlier. At most
/// one per process; one never taken stays open until exit. Returns 0, or -1 (nothing kept).
int CAvahiBus_prestart(const uint8_t *messages, size_t length);

/// The socket CAvahiBus_prestart opened, if it sent exactly `messages` (the caller then owns
/// it), once; else -1.
int CAvahiBus_take(const uint8_t *messages, size_t length);
