// libpq, PostgreSQL's C client (Debian's libpq-dev; its header lives in /usr/include/postgresql).
#include <libpq-fe.h>
