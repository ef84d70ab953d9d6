#pragma once
// libsystemd (libsystemd-dev): sd_notify, the journal, sd-bus.
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
