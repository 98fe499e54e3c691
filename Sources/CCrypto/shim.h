#pragma once
// OpenSSL's libcrypto, for SHA-256 only: its SHA256_Init/Update/Final use the CPU's SHA extensions
// (about 4x libsodium's portable SHA-256 on 65-200 byte inputs here). They are marked deprecated in
// OpenSSL 3 in favour of EVP, which costs a context per call; they remain supported.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
