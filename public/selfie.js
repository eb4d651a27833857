// The guest portal's selfie camera. Without this script (or without a camera) the page's file
// input takes the selfie, with the phone's front camera where it has one. With it: a live preview
// of the front camera; the guest is asked to look, turn their head left and right and blink while
// a short series of frames is taken (the liveness signals look for the turn and the blink across
// them); the last frame, at full size, is the selfie. Both go into the form's own file inputs and
// the form is sent as if the guest had chosen the files. A camera refused leaves the file input.
(function () {
  'use strict';
  var box = document.getElementById('camera');
  if (!box || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || typeof DataTransfer === 'undefined') return;
  var form = box.closest('form');
  var selfieInput = form.querySelector('input[name=selfie]');
  var framesInput = box.querySelector('input[name=selfie_frames]');
  var video = box.querySelector('video');
  var prompt = box.querySelector('[data-prompt]');
  var start = box.querySelector('[data-start]');
  box.hidden = false;
  video.hidden = true;

  var wait = function (ms) {
    return new Promise(function (done) {
      setTimeout(done, ms);
    });
  };
  // The frame on the preview now, as a JPEG no wider than `width`.
  var grab = function (width) {
    var canvas = document.createElement('canvas');
    var scale = Math.min(1, width / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
    return new Promise(function (done) {
      canvas.toBlob(done, 'image/jpeg', 0.88);
    });
  };
  var files = function (blobs, name) {
    var list = new DataTransfer();
    blobs.forEach(function (blob, i) {
      list.items.add(new File([blob], name + (blobs.length > 1 ? '-' + (i + 1) : '') + '.jpg', { type: 'image/jpeg' }));
    });
    return list.files;
  };
  // What the guest is asked, how long for, and how many frames are taken meanwhile (eight in all).
  var steps = [
    ['look', 1000, 1],
    ['left', 1600, 2],
    ['right', 1600, 2],
    ['blink', 1800, 3],
  ];

  start.addEventListener('click', async function () {
    start.disabled = true;
    var stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 960 } }, audio: false });
    } catch (refused) {
      prompt.textContent = box.dataset.refused;
      start.hidden = true;
      return;
    }
    video.srcObject = stream;
    video.hidden = false;
    await video.play();
    var frames = [];
    for (var s = 0; s < steps.length; s++) {
      prompt.textContent = box.dataset[steps[s][0]];
      for (var k = 0; k < steps[s][2]; k++) {
        await wait(steps[s][1] / steps[s][2]);
        frames.push(await grab(480));
      }
    }
    prompt.textContent = box.dataset.look;
    await wait(700);
    var selfie = await grab(1280);
    stream.getTracks().forEach(function (track) {
      track.stop();
    });
    selfieInput.files = files([selfie], 'selfie');
    framesInput.files = files(frames, 'frame');
    form.requestSubmit(form.querySelector('button[value=save]'));
  });
})();
