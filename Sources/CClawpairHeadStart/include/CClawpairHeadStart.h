#pragma once
// clawpair's discover browse, started by a constructor before main (and before the Swift
// runtime's and OpenSSL's own initializers): avahi-daemon holds a new browse back for about
// 10 ms even with the answer in its cache, so the process's set-up runs inside that hold instead
// of before the request goes out. The constructor only decides from argv and calls
// CDNSSDShims_resolver_prestart; LocalDiscovery's AvahiBrowser takes the browse over
// (CDNSSDShims_resolver_take) when it asks for the same type, domain and limit. Executable only:
// a library must not act on its host program's arguments.

/// The service type and resolve limit the head start browses with (LocalDiscovery uses the same).
#define CCLAWPAIR_HEAD_START_TYPE "_openclaw-gw._tcp"
#define CCLAWPAIR_HEAD_START_LIMIT 512

/// Whether `argv` (argv[0] first) is a one-shot `discover` that may use Avahi: not
/// `--backend native`, `--wide-area-only`, `--watch` or help. Any argument spelled `native`
/// counts as the backend (at worst, no head start).
int CClawpairHeadStart_applies(int argc, const char *const *argv);

/// 1 when the constructor started the browse, else 0 (for `-v` notes and tests).
int CClawpairHeadStart_started(void);
