#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
