#pragma once
// libjpeg-turbo (libjpeg-dev). jpeglib.h needs stdio.h and size_t first.
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
#include <jerror.h>
