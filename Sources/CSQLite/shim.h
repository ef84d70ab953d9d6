#pragma once
// SQLite (libsqlite3-dev): read-only access to OpenClaw's state database.
#include <sqlite3.h>
