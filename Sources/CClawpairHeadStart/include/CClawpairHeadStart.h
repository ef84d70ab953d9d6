#pragma once
// clawpair's discover browse, sent by a constructor before main (and before the Swift runtime's
// own initializers): avahi-daemon holds a new browse back for about 10 ms even with the answer in
// its cache, so the process's set-up runs inside that hold instead of before the request goes
// out. The constructor only decides from argv and calls CAvahiBus_prestart with the first
// messages of the browse; ClawpairAvahi's AvahiBrowser takes the connection over
// (CAvahiBus_take) when it would send the same bytes. Executable only: a library must not act on
// its host program's arguments.
#include <stddef.h>
#include <stdint.h>

/// The service type the head start browses (LocalDiscovery browses the same).
#define CCLAWPAIR_HEAD_START_TYPE "_openclaw-gw._tcp"

/// Whether `argv` (argv[0] first) is a one-shot `discover` that may use Avahi: not
/// `--backend native`, `--wide-area-only`, `--watch` or help. Any argument spelled `native`
/// counts as the backend (at worst, no head start).
int CClawpairHeadStart_applies(int argc, const char *const *argv);

/// 1 when the constructor sent the browse, else 0 (for `-v` notes and tests).
int CClawpairHeadStart_started(void);

/// The messages the constructor sends after authenticating (Hello, then ServiceBrowserNew for
/// CCLAWPAIR_HEAD_START_TYPE in the default domain), marshalled as AvahiBrowser marshals them:
/// a test compares the two.
const uint8_t *CClawpairHeadStart_opening(size_t *length);
