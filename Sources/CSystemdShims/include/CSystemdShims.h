#pragma once
// libsystemd for `clawpair node`, loaded on first use with dlopen("libsystemd.so.0") instead of
// being linked (every other command would pay for it at start-up): sd_notify readiness and
// watchdog, the journal, and one sd-bus call to the desktop's notification service
// (org.freedesktop.Notifications on the session bus). Types come from libsystemd's own headers;
// each call goes through a forwarder with a C signature Swift can import (sd-bus calls are
// variadic). Call CSystemdShims_load first: the forwarders must not be used unless it returned 0.
#include <stddef.h>
#include <stdint.h>

/// Loads libsystemd and resolves every function used below, once per process (thread-safe).
/// Returns 0 on success; otherwise -1, with the reason in CSystemdShims_load_error().
int CSystemdShims_load(void);

/// Why CSystemdShims_load failed ("" when it did not).
const char *CSystemdShims_load_error(void);

/// sd_notify(0, state): > 0 sent, 0 no NOTIFY_SOCKET, < 0 a negative errno.
int CSystemdShims_sd_notify(const char *state);

/// sd_watchdog_enabled(0, usec): > 0 with the interval in *usec when the service manager expects
/// WATCHDOG=1 pings from this process, 0 when not, < 0 a negative errno.
int CSystemdShims_sd_watchdog_enabled(uint64_t *usec);

/// sd_journal_sendv with MESSAGE=, PRIORITY= (0–7) and SYSLOG_IDENTIFIER=. 0 or a negative errno.
int CSystemdShims_journal_send(const char *message, int priority, const char *identifier);

/// org.freedesktop.Notifications.Notify on the user's session bus (sd_bus_open_user): app name,
/// summary, body, urgency hint (0 low, 1 normal, 2 critical), expiry in ms (-1 server default).
/// The method call waits at most timeout_usec. Returns 0 with the notification id in *id;
/// otherwise a negative errno with the reason (the bus error's message) in `error`.
int CSystemdShims_desktop_notify(const char *app, const char *summary, const char *body, uint8_t urgency,
                                 int32_t expire_ms, uint64_t timeout_usec, uint32_t *id, char *error,
                                 size_t error_size);
