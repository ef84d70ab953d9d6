#pragma once
// libpng (libpng-dev).
#include <png.h>
