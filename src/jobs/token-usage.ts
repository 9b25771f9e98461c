/** Model tokens a run used; added to the job's totals whether it succeeded or failed. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}
