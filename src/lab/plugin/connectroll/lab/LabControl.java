// connect-roll lab: what the lab asks of one task while it runs, through a file the task reads at most every 200 ms.
// A stall file (<control dir>/stall-<connector>-<task>) holds the epoch ms until which the task produces or
// consumes nothing while it stays RUNNING, or "forever"; the lab deletes it to resume the task.
package connectroll.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;

final class LabControl {
  static final String DIR = "lab.control.dir";
  private static final long CHECK_EVERY_MS = 200;
  private final Path stallFile;
  private long checkedAt = 0;
  private boolean stalled = false;

  LabControl(String dir, String connector, int task) {
    this.stallFile = dir == null || dir.isEmpty() ? null : Paths.get(dir, "stall-" + connector + "-" + task);
  }

  /** True while the lab holds this task in a stall. */
  boolean stalled() {
    if (stallFile == null) return false;
    long now = System.currentTimeMillis();
    if (now - checkedAt < CHECK_EVERY_MS) return stalled;
    checkedAt = now;
    try {
      String until = new String(Files.readAllBytes(stallFile), StandardCharsets.UTF_8).trim();
      stalled = until.equals("forever") || now < Long.parseLong(until);
    } catch (NoSuchFileException e) {
      stalled = false;
    } catch (IOException | NumberFormatException e) {
      stalled = false;
    }
    return stalled;
  }

  static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
