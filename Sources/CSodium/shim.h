#pragma once
// libsodium (libsodium-dev).
#include <sodium.h>
