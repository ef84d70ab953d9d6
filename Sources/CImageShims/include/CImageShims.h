#pragma once
// C helpers for ClawpairQR's image input and output, for what Swift cannot do safely or
// cheaply itself:
//
//  - CImageShimsJPEG.h: libjpeg calls made inside setjmp, so libjpeg's fatal errors return
//    instead of calling exit() or longjmp-ing through Swift frames.
//  - CImageShimsPNG.h: libpng's row-by-row writer, the same way, for 1-bit PNGs written from
//    packed rows (libpng's simplified API only takes 8-bit samples).
//  - CImageShimsZBar.h: zbar loaded with dlopen on first use. libzbar pulls in D-Bus, V4L2, X11
//    and systemd libraries whose loading alone costs a few milliseconds; linked normally it
//    would slow the start of every clawpair command, not just `qr scan`.
#include "CImageShimsJPEG.h"
#include "CImageShimsPNG.h"
#include "CImageShimsZBar.h"
