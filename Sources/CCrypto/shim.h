#ifndef ROLLOUT_CCRYPTO_SHIM_H
#define ROLLOUT_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

/* BIO_get_mem_data is a macro over BIO_ctrl. */
static inline long rollout_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
#endif
