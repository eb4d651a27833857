// The console's only script of its own, beside htmx: an upload's progress on its form's <progress>.
document.addEventListener('htmx:xhr:progress', (event) => {
  const bar = event.target.querySelector && event.target.querySelector('progress');
  if (bar && event.detail.lengthComputable) bar.value = Math.round((event.detail.loaded / event.detail.total) * 100);
});
