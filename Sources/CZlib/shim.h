#ifndef ROLLOUT_CZLIB_SHIM_H
#define ROLLOUT_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro over inflateInit2_ (it passes the header's version and the stream's
   size): a function Swift can call. 16 + MAX_WBITS: gzip members only, with a 32 KiB window. */
static inline int rollout_inflate_init_gzip(z_streamp stream) { return inflateInit2(stream, 16 + MAX_WBITS); }
/* deflateInit is a macro over deflateInit_ in the same way: a zlib stream (git's object format) at `level`. */
static inline int rollout_deflate_init(z_streamp stream, int level) { return deflateInit(stream, level); }
#endif
