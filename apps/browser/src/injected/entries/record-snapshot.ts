/**
 * Asks a recorded tab's recorder (record-init) for a full snapshot: the tab became the one recorded (the
 * agent switched to it), or events were lost and the recording resumes from here.
 */
export default function recordSnapshot(snapshotEvent: string): void {
  window.dispatchEvent(new Event(snapshotEvent));
}
