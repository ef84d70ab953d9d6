#pragma once
// Avahi's client library (libavahi-client-dev): browse and resolve through avahi-daemon, on an
// AvahiSimplePoll main loop. The product loads it with dlopen (CAvahiClientShims); this module
// links it, for the tests that check the library itself.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-common/address.h>
#include <avahi-common/error.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/strlst.h>
