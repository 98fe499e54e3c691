// SQLCipher's C API (Debian's libsqlcipher-dev: SQLite 3.15.2 with page-level AES-256 and HMAC).
// Its header is sqlite3.h in a folder of its own; the codec functions need SQLITE_HAS_CODEC.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
