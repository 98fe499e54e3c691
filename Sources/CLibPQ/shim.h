// libpq, PostgreSQL's C client (Debian's libpq-dev; pkg-config adds -I/usr/include/postgresql).
#include <libpq-fe.h>
