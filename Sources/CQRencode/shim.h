#pragma once
// libqrencode (libqrencode-dev).
#include <qrencode.h>
