/* libsodium's SHA-256 against OpenSSL's on the input sizes of a Merkle node (65 bytes) and a leaf (200).
 *   cc -O2 -o sha256-compare sha256-compare.c $(pkg-config --cflags --libs libsodium libcrypto) && ./sha256-compare
 * OpenSSL 3's one-shot SHA256() goes through EVP and pays a lookup per call; SHA256_Init/Update/Final
 * do not, and are what EventLog uses. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <sodium.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(){ if (sodium_init() < 0) return 1; unsigned char buf[256]={1}, out[32]; int N=2000000;
 for (int len=65; len<=200; len+=135){
 double t=now(); for(int i=0;i<N;i++){buf[0]=i; crypto_hash_sha256(out,buf,len);} double a=now()-t;
 t=now(); for(int i=0;i<N;i++){buf[0]=i; SHA256_CTX c; SHA256_Init(&c); SHA256_Update(&c,buf,len); SHA256_Final(out,&c);} double b=now()-t;
 printf("len %d: libsodium %.0f ns, openssl %.0f ns\n", len, a/N*1e9, b/N*1e9);}
}
