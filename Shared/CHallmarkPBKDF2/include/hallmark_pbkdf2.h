#ifndef HALLMARK_PBKDF2_H
#define HALLMARK_PBKDF2_H
/* Placeholder: the fast PBKDF2-HMAC-SHA256 path lands with the crypto module. */
int hallmark_pbkdf2_placeholder(void);
#endif
