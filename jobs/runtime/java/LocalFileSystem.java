package kraftaudit.hadoop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system ({@code file:}) for the sessions kraft-audit starts itself (jobs/runtime/session.py).
 *
 * <p>Without Hadoop's native library, {@link RawLocalFileSystem} sets each new file's permissions by running
 * {@code chmod} and reads each renamed file's link status by running {@code readlink}: a process per Parquet file
 * and several per Delta commit (a small audit started about 600). Here both are Java calls
 * ({@link Files#setPosixFilePermissions}, {@link Files#isSymbolicLink}); everything else is Hadoop's own. It is the
 * raw file system, without Hadoop's {@code .crc} side files: Delta's log and Parquet's footers carry their own
 * checks, and every reader of the tables ignores those files.
 */
public class LocalFileSystem extends RawLocalFileSystem {
  // the nine permission bits of FsPermission.toShort(), lowest first
  private static final PosixFilePermission[] BITS = {
    PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
    PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
    PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
  };

  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    short mode = permission.toShort();
    for (int bit = 0; bit < BITS.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        set.add(BITS[bit]);
      }
    }
    Files.setPosixFilePermissions(pathToFile(p).toPath(), set);
  }

  @Override
  public FileStatus getFileLinkStatus(Path f) throws IOException {
    // a symbolic link keeps Hadoop's handling; any other path's link status is its status (FileNotFoundException
    // when it does not exist, as Hadoop's)
    if (Files.isSymbolicLink(pathToFile(f).toPath())) {
      return super.getFileLinkStatus(f);
    }
    return getFileStatus(f);
  }
}
