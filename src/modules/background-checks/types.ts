// The shape of a background check's report: the API's results, the PDF and the console read it.

export interface ReportItem {
  title: string;
  subtitle?: string;
  description?: string;
  tags: string[];
  images?: string[];
}

export interface Section {
  name: string;
  status: 'CLEAR' | 'REVIEW' | 'NOT_RUN' | 'PENDING';
  /** Beyond the spec: what was searched, with the data's date, in words. */
  searched?: string;
  items: ReportItem[];
}

export interface BackgroundResults {
  id: string;
  start_date: string;
  stop_date: string | null;
  status: string;
  risk_status: string | null;
  type: string;
  pdf: string | null;
  /** PENDING: a section waiting on its provider (Checkr, on the guest), the check with it. */
  report_items: Section[];
  error?: string;
}
