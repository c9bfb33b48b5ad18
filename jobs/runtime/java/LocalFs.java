package kraftaudit.hadoop;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.local.LocalConfigKeys;

/**
 * {@link LocalFileSystem} behind Hadoop's {@code FileContext} (Delta's log store writes each commit through it), as
 * Hadoop's own {@code RawLocalFs} puts its raw file system there (and answers as it does below).
 */
public class LocalFs extends DelegateToFileSystem {
  public LocalFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new LocalFileSystem(), conf, "file", false);
  }

  @Override
  public int getUriDefaultPort() {
    return -1;
  }

  @Override
  public FsServerDefaults getServerDefaults(Path f) throws IOException {
    return LocalConfigKeys.getServerDefaults();
  }

  @Override
  @Deprecated
  public FsServerDefaults getServerDefaults() throws IOException {
    return LocalConfigKeys.getServerDefaults();
  }

  @Override
  public boolean isValidName(String src) {
    return true; // any local path
  }
}
