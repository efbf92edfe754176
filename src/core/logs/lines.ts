/**
 * Line predicates shared by the classifier and the log index.
 */

/** Lines in which a runner only announces what it is about to do (never evidence, research §7.8). */
const ECHO =
  /^\s*(?:[=>#*-]+\s*)?(?:Fixing|Installing|Patched(?! (?:run|test)\b)|Patching|Applying|Downloading|Checking|Trying|Attempting|Upgrading|Uninstalling|Collecting|Requirement already|Successfully|Using|Creating|Building wheel|Looking in)\b|\.\.\.\s*$|^\s*Warning: [\w. -]+ fix failed/;
export const isEchoLine = (line: string): boolean => ECHO.test(line);

/** docker pull progress and similar chatter that often fills a kept tail (research §5.2). */
const PULL =
  /^\s*(?:[0-9a-f]{12}: (?:Pulling fs layer|Waiting|Downloading|Extracting|Verifying Checksum|Download complete|Pull complete|Already exists)|Unable to find image '[^']+' locally|Digest: sha256:|Status: (?:Downloaded newer image|Image is up to date)|[\w.-]+: Pulling from )/;
export const isDockerPullLine = (line: string): boolean => PULL.test(line);

/** tqdm progress bars. */
export const isProgressLine = (line: string): boolean => /\d{1,3}%\|[█▉▊▋▌▍▎▏ #]{0,200}\|/.test(line) && !/Error|error:|Traceback|failed/.test(line);

// Process prefixes of vLLM (`(EngineCore_0 pid=1)`, `(VllmWorker rank=1 pid=2)`, `[rank1]:`) and SGLang
// (`[2025-03-29 18:12:40 TP0]`) come before the level.
const LEVEL_BENIGN =
  /^\s*(?:\[rank\d{1,4}\]:\s*)?(?:\(\w{1,40}(?: rank=\d{1,4})? pid=\d{1,10}\)\s*)?(?:\[[\d-]{8,10} [\d:]{8}(?: [A-Z]{2,3}\d{1,3})*\]\s*)?(?:\x1b\[[\d;]*m\s*)*(?:WARNING|WARN|INFO|DEBUG)\b|^\s*(?:Warning|Note|Hint):/;

/** A line written by a child process of the server (engine core, worker, tensor-parallel rank). */
export const isChildProcessLine = (line: string): boolean =>
  /^\s{0,8}(?:\((?:EngineCore|VllmWorker|Worker)\w{0,20}(?: rank=\d{1,4})? pid=\d{1,10}\)|\[rank\d{1,4}\]:|\[[\d-]{8,10} [\d:]{8}(?: [A-Z]{2,3}\d{1,3})+\])/.test(
    line,
  );
// No leading `\w*`-style quantifiers: these run on arbitrarily long lines and must stay linear.
const ERROR_FORM =
  /Traceback \(most recent call last\)|(?:Error|Exception)\b|\bExit\b|\berror\s{0,4}:|\bERROR\b|died due to signal|CRITICAL|FATAL|No module named|cannot import name|\bFAILED\b|\b[Ff]ailed\b|not found|denied|[Nn]o space left|\bKilled\b|undefined symbol|\[Errno|[Uu]nknown|[Tt]imed out|[Tt]imeout|crashed|CRASHED|not supported|is blocked|Requires |unrecognized arguments|arguments are required|No wheel|No perf_command|[Nn]o (?:\w+ )?metrics|not available|\bcannot\b|[Cc]ould not|Broken pipe|not implemented|must be|is not a /;

/**
 * An *error-form* line states a failure (Traceback, `Error:`, `No module named` …) rather than
 * mentioning a topic; log lines at WARNING/INFO/DEBUG level are not.
 */
export const isErrorForm = (line: string): boolean => !LEVEL_BENIGN.test(line) && ERROR_FORM.test(line);

/** Lines that can never be evidence. */
export const isNoise = (line: string): boolean => isEchoLine(line) || isDockerPullLine(line) || isProgressLine(line);
