#pragma once
// zbar barcode scanner (libzbar-dev).
#include <zbar.h>
