#ifndef ROLLOUT_CCRYPTO_SHIM_H
#define ROLLOUT_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#endif
