#pragma once
// Avahi Bonjour-compatibility API (libavahi-compat-libdnssd-dev).
#include <dns_sd.h>
