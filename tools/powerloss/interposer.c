// Power-loss journal: an LD_PRELOAD library for tests (never linked into a product).
//
// Loaded into a process that writes a store, it records, at every moment and in files that survive
// a SIGKILL, what the disk would hold if the power were cut now: for each file of the store, the
// bytes made durable (by fsync/fdatasync, or a write through a descriptor opened O_DSYNC/O_SYNC, as
// LMDB writes its meta pages) and the writes that were only handed to the kernel. The test kills the
// process, then builds the store files a power loss could leave (Tests/TestSupport/PowerLossDisk.swift).
//
// Environment:
//   POWERLOSS_STORE    the store directory (absolute); its files named data.mdb* are tracked.
//   POWERLOSS_JOURNAL  an empty directory for the journal.
//
// Journal, per tracked file (named by a number given when the process first sees the file):
//   N.durable   the file's durable contents (the contents at start for a file that existed then).
//   N.pending   writes since the last sync, in order: [offset u64][length u64][flags u64][bytes];
//               flags bit 0: already durable (written through an O_DSYNC descriptor).
//   N.synced    present while a sync's writes are moved into N.durable: the length of N.pending that
//               the sync covered (the reader finishes the move).
//   directory   the durable directory entries, "name N" per line: written when the store directory
//               itself is fsynced (a rename or a new file is not durable before that).
//
// Each real write happens before it is journaled and each sync before its writes count as durable:
// a kill between the two leaves a state a power loss could also leave.
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_FDS = 65536, MAX_FILES = 256 };
enum { UNTRACKED = 0, TRACKED_FILE = 1, TRACKED_DIRECTORY = 2 };

struct descriptor { int kind; int file; int dsync; };
struct file { dev_t dev; ino_t ino; int live; };

static struct descriptor descriptors[MAX_FDS];
static struct file files[MAX_FILES];
static int fileCount;
static int initialized;
static char storeDir[PATH_MAX];
static char journalDir[PATH_MAX];
static pthread_mutex_t mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

static void fail(const char *what) {
    char message[512];
    int length = snprintf(message, sizeof message, "powerloss interposer: %s: %s\n", what, strerror(errno));
    if (length > 0) (void)!real_write(2, message, (size_t)length);
    abort();
}

static void resolve(void) {
    if (real_open) return;
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_openat64 = dlsym(RTLD_NEXT, "openat64");
    real_close = dlsym(RTLD_NEXT, "close");
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
}

static void journalPath(char *out, const char *name) {
    snprintf(out, PATH_MAX, "%s/%s", journalDir, name);
}

static void filePath(char *out, int file, const char *suffix) {
    snprintf(out, PATH_MAX, "%s/%d.%s", journalDir, file, suffix);
}

static void writeAll(int fd, const void *bytes, size_t length, off_t offset) {
    const char *cursor = bytes;
    while (length > 0) {
        ssize_t written = real_pwrite(fd, cursor, length, offset);
        if (written < 0) {
            if (errno == EINTR) continue;
            fail("cannot write the journal");
        }
        cursor += written; length -= (size_t)written; offset += written;
    }
}

static void appendAll(int fd, const void *bytes, size_t length) {
    writeAll(fd, bytes, length, lseek(fd, 0, SEEK_END));
}

/// Replaces journal file `name` with `length` bytes, atomically (a kill leaves the old or the new).
static void replaceJournalFile(const char *name, const void *bytes, size_t length) {
    char path[PATH_MAX], temporary[PATH_MAX];
    journalPath(path, name);
    snprintf(temporary, sizeof temporary, "%s.tmp", path);
    int fd = real_open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create a journal file");
    writeAll(fd, bytes, length, 0);
    real_close(fd);
    if (rename(temporary, path) != 0) fail("cannot rename a journal file");
}

static int isTrackedName(const char *name) {
    return strncmp(name, "data.mdb", 8) == 0;
}

static int isInStore(const char *path) {
    char absolute[PATH_MAX], directory[PATH_MAX];
    if (path[0] == '/') snprintf(absolute, sizeof absolute, "%s", path);
    else {
        if (!getcwd(directory, sizeof directory)) return 0;
        snprintf(absolute, sizeof absolute, "%s/%s", directory, path);
    }
    char *slash = strrchr(absolute, '/');
    if (!slash || !isTrackedName(slash + 1)) return 0;
    *slash = 0;
    char resolved[PATH_MAX];
    if (!realpath(absolute, resolved)) return 0;
    return strcmp(resolved, storeDir) == 0;
}

static int isStoreDirectory(const char *path) {
    char resolved[PATH_MAX];
    return realpath(path, resolved) && strcmp(resolved, storeDir) == 0;
}

/// Writes the `files` journal file: the table of journal numbers, so that the next process to write the
/// store (a later command in the same test) goes on from this one's journal.
static void saveFiles(void) {
    char table[MAX_FILES * 64];
    size_t length = 0;
    for (int index = 0; index < fileCount; index++)
        length += (size_t)snprintf(table + length, sizeof table - length, "%llu %llu %d\n",
                                   (unsigned long long)files[index].dev, (unsigned long long)files[index].ino, files[index].live);
    replaceJournalFile("files", table, length);
}

static int loadFiles(void) {
    char path[PATH_MAX];
    journalPath(path, "files");
    FILE *table = fopen(path, "r");
    if (!table) return 0;
    unsigned long long dev, ino;
    int live;
    while (fileCount < MAX_FILES && fscanf(table, "%llu %llu %d", &dev, &ino, &live) == 3)
        files[fileCount++] = (struct file){ (dev_t)dev, (ino_t)ino, live };
    fclose(table);
    return 1;
}

/// The journal number of the file with `info`, or a new one (`fresh`: a file created now is a new file
/// even if the file system reuses an inode number of a file it deleted).
static int fileNumber(const struct stat *info, int fresh) {
    if (!fresh)
        for (int index = 0; index < fileCount; index++)
            if (files[index].live && files[index].dev == info->st_dev && files[index].ino == info->st_ino) return index;
    for (int index = 0; index < fileCount; index++)
        if (files[index].dev == info->st_dev && files[index].ino == info->st_ino) files[index].live = 0;
    if (fileCount == MAX_FILES) { errno = EMFILE; fail("too many files"); }
    files[fileCount] = (struct file){ info->st_dev, info->st_ino, 1 };
    char path[PATH_MAX];
    filePath(path, fileCount, "pending");
    int fd = real_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create a pending journal");
    real_close(fd);
    fileCount++;
    saveFiles();
    return fileCount - 1;
}

/// Copies `source` (a file of the store, as it is at the start) to journal file N.durable.
static void copyToDurable(const char *source, int file) {
    char path[PATH_MAX];
    filePath(path, file, "durable");
    int in = real_open(source, O_RDONLY | O_CLOEXEC);
    int out = real_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (in < 0 || out < 0) fail("cannot copy a store file into the journal");
    char buffer[1 << 16];
    off_t offset = 0;
    for (;;) {
        ssize_t count = read(in, buffer, sizeof buffer);
        if (count < 0) { if (errno == EINTR) continue; fail("cannot read a store file"); }
        if (count == 0) break;
        writeAll(out, buffer, (size_t)count, offset);
        offset += count;
    }
    real_close(in);
    real_close(out);
}

static void createEmptyDurable(int file) {
    char path[PATH_MAX];
    filePath(path, file, "durable");
    int fd = real_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create a durable journal");
    real_close(fd);
}

/// Writes the `directory` journal file from the store directory as it is now.
static void recordDirectory(void) {
    char listing[8192];
    size_t length = 0;
    DIR *directory = opendir(storeDir);
    if (!directory) fail("cannot list the store directory");
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        if (!isTrackedName(entry->d_name)) continue;
        char path[PATH_MAX];
        struct stat info;
        snprintf(path, sizeof path, "%s/%s", storeDir, entry->d_name);
        if (stat(path, &info) != 0) continue;
        int file = -1;
        for (int index = 0; index < fileCount; index++)
            if (files[index].live && files[index].dev == info.st_dev && files[index].ino == info.st_ino) file = index;
        if (file < 0) {
            // A file never opened while tracked: what is in it now was there at the start.
            file = fileNumber(&info, 1);
            copyToDurable(path, file);
        }
        int written = snprintf(listing + length, sizeof listing - length, "%s %d\n", entry->d_name, file);
        if (written < 0 || (size_t)written >= sizeof listing - length) { errno = ENOSPC; fail("directory listing too long"); }
        length += (size_t)written;
    }
    closedir(directory);
    replaceJournalFile("directory", listing, length);
}

static void initialize(void) {
    if (initialized) return;
    initialized = 1;
    const char *store = getenv("POWERLOSS_STORE"), *journal = getenv("POWERLOSS_JOURNAL");
    if (!store || !journal) { storeDir[0] = 0; return; }
    if (!realpath(store, storeDir)) fail("POWERLOSS_STORE does not exist");
    if (!realpath(journal, journalDir)) fail("POWERLOSS_JOURNAL does not exist");
    // A journal a previous process left goes on; otherwise everything in the store now is durable
    // (the test made it so before starting the first writer).
    if (!loadFiles()) recordDirectory();
}

static void track(int fd, const char *path, int flags, int created) {
    if (fd < 0 || fd >= MAX_FDS) return;
    descriptors[fd] = (struct descriptor){ UNTRACKED, -1, 0 };
    if (!storeDir[0]) return;
    if (isStoreDirectory(path)) {
        descriptors[fd].kind = TRACKED_DIRECTORY;
        return;
    }
    if (!isInStore(path)) return;
    struct stat info;
    if (fstat(fd, &info) != 0) fail("cannot stat a store file");
    int file = fileNumber(&info, created);
    if (created) createEmptyDurable(file);
    descriptors[fd] = (struct descriptor){ TRACKED_FILE, file, (flags & O_DSYNC) != 0 };
}

/// Records a write of `length` bytes at `offset` that has happened; an O_DSYNC descriptor's write is durable.
static void journalWrite(int fd, const struct iovec *vectors, int count, off_t offset, size_t length) {
    struct descriptor descriptor = descriptors[fd];
    uint64_t header[3] = { (uint64_t)offset, (uint64_t)length, descriptor.dsync ? 1u : 0u };
    char path[PATH_MAX];
    filePath(path, descriptor.file, "pending");
    int pending = real_open(path, O_WRONLY | O_CLOEXEC);
    if (pending < 0) fail("cannot open a pending journal");
    // One buffer, one write: a kill cuts the record at worst, and the reader drops a cut record.
    char *record = malloc(sizeof header + length);
    if (!record) fail("out of memory");
    memcpy(record, header, sizeof header);
    size_t filled = 0;
    for (int index = 0; index < count && filled < length; index++) {
        size_t take = vectors[index].iov_len < length - filled ? vectors[index].iov_len : length - filled;
        memcpy(record + sizeof header + filled, vectors[index].iov_base, take);
        filled += take;
    }
    appendAll(pending, record, sizeof header + length);
    real_close(pending);
    if (descriptor.dsync) {
        filePath(path, descriptor.file, "durable");
        int durable = real_open(path, O_WRONLY | O_CLOEXEC);
        if (durable < 0) fail("cannot open a durable journal");
        writeAll(durable, record + sizeof header, length, offset);
        real_close(durable);
    }
    free(record);
}

/// After a successful sync of tracked file `file`: its pending writes become durable.
static void journalSync(int file) {
    char pendingPath[PATH_MAX], durablePath[PATH_MAX], marker[64];
    filePath(pendingPath, file, "pending");
    filePath(durablePath, file, "durable");
    int pending = real_open(pendingPath, O_RDWR | O_CLOEXEC);
    if (pending < 0) fail("cannot open a pending journal");
    off_t size = lseek(pending, 0, SEEK_END);
    if (size == 0) { real_close(pending); return; }
    snprintf(marker, sizeof marker, "%d.synced", file);
    char length[32];
    int digits = snprintf(length, sizeof length, "%lld", (long long)size);
    replaceJournalFile(marker, length, (size_t)digits);
    char *bytes = malloc((size_t)size);
    if (!bytes) fail("out of memory");
    if (pread(pending, bytes, (size_t)size, 0) != size) fail("cannot read a pending journal");
    int durable = real_open(durablePath, O_WRONLY | O_CLOEXEC);
    if (durable < 0) fail("cannot open a durable journal");
    for (off_t at = 0; at + 24 <= size;) {
        uint64_t header[3];
        memcpy(header, bytes + at, sizeof header);
        if (at + 24 + (off_t)header[1] > size) break;
        writeAll(durable, bytes + at + 24, header[1], (off_t)header[0]);
        at += 24 + (off_t)header[1];
    }
    real_close(durable);
    free(bytes);
    if (ftruncate(pending, 0) != 0) fail("cannot truncate a pending journal");
    real_close(pending);
    char markerPath[PATH_MAX];
    journalPath(markerPath, marker);
    unlink(markerPath);
}

static int tracked(int fd) {
    return fd >= 0 && fd < MAX_FDS && descriptors[fd].kind == TRACKED_FILE;
}

static int openCommon(int directoryFD, const char *path, int flags, mode_t mode, int at) {
    resolve();
    pthread_mutex_lock(&mutex);
    initialize();
    int existed = 1;
    if (flags & O_CREAT) {
        struct stat info;
        existed = (at ? fstatat(directoryFD, path, &info, 0) : stat(path, &info)) == 0;
    }
    int fd = at ? real_openat(directoryFD, path, flags, mode) : real_open(path, flags, mode);
    if (fd >= 0) {
        char full[PATH_MAX];
        if (at && path[0] != '/' && directoryFD != AT_FDCWD) {
            char link[64], base[PATH_MAX];
            snprintf(link, sizeof link, "/proc/self/fd/%d", directoryFD);
            ssize_t n = readlink(link, base, sizeof base - 1);
            base[n > 0 ? n : 0] = 0;
            snprintf(full, sizeof full, "%s/%s", base, path);
        } else snprintf(full, sizeof full, "%s", path);
        track(fd, full, flags, !existed);
    }
    pthread_mutex_unlock(&mutex);
    return fd;
}

static mode_t modeArgument(int flags, va_list arguments) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = modeArgument(flags, arguments);
    va_end(arguments);
    return openCommon(AT_FDCWD, path, flags, mode, 0);
}

int open64(const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = modeArgument(flags, arguments);
    va_end(arguments);
    return openCommon(AT_FDCWD, path, flags, mode, 0);
}

int openat(int directoryFD, const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = modeArgument(flags, arguments);
    va_end(arguments);
    return openCommon(directoryFD, path, flags, mode, 1);
}

int openat64(int directoryFD, const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = modeArgument(flags, arguments);
    va_end(arguments);
    return openCommon(directoryFD, path, flags, mode, 1);
}

int close(int fd) {
    resolve();
    pthread_mutex_lock(&mutex);
    if (fd >= 0 && fd < MAX_FDS) descriptors[fd] = (struct descriptor){ UNTRACKED, -1, 0 };
    int result = real_close(fd);
    pthread_mutex_unlock(&mutex);
    return result;
}

static ssize_t writeCommon(int fd, const struct iovec *vectors, int count, off_t offset, int positioned) {
    resolve();
    if (!tracked(fd)) {
        if (positioned) return count == 1 ? real_pwrite(fd, vectors[0].iov_base, vectors[0].iov_len, offset)
                                          : real_pwritev(fd, vectors, count, offset);
        return count == 1 ? real_write(fd, vectors[0].iov_base, vectors[0].iov_len) : real_writev(fd, vectors, count);
    }
    pthread_mutex_lock(&mutex);
    off_t at = positioned ? offset : lseek(fd, 0, SEEK_CUR);
    ssize_t written = positioned ? (count == 1 ? real_pwrite(fd, vectors[0].iov_base, vectors[0].iov_len, offset)
                                               : real_pwritev(fd, vectors, count, offset))
                                 : (count == 1 ? real_write(fd, vectors[0].iov_base, vectors[0].iov_len)
                                               : real_writev(fd, vectors, count));
    if (written > 0) journalWrite(fd, vectors, count, at, (size_t)written);
    pthread_mutex_unlock(&mutex);
    return written;
}

ssize_t write(int fd, const void *bytes, size_t length) {
    struct iovec vector = { (void *)bytes, length };
    return writeCommon(fd, &vector, 1, 0, 0);
}

ssize_t pwrite(int fd, const void *bytes, size_t length, off_t offset) {
    struct iovec vector = { (void *)bytes, length };
    return writeCommon(fd, &vector, 1, offset, 1);
}

ssize_t pwrite64(int fd, const void *bytes, size_t length, off_t offset) {
    return pwrite(fd, bytes, length, offset);
}

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    return writeCommon(fd, vectors, count, 0, 0);
}

ssize_t pwritev(int fd, const struct iovec *vectors, int count, off_t offset) {
    return writeCommon(fd, vectors, count, offset, 1);
}

static int syncCommon(int fd, int (*real)(int)) {
    if (fd < 0 || fd >= MAX_FDS || descriptors[fd].kind == UNTRACKED) return real(fd);
    pthread_mutex_lock(&mutex);
    int result = real(fd);
    if (result == 0) {
        if (descriptors[fd].kind == TRACKED_DIRECTORY) recordDirectory();
        else journalSync(descriptors[fd].file);
    }
    pthread_mutex_unlock(&mutex);
    return result;
}

int fsync(int fd) { resolve(); return syncCommon(fd, real_fsync); }
int fdatasync(int fd) { resolve(); return syncCommon(fd, real_fdatasync); }
