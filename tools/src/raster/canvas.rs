//! The image the frames are drawn on: palette indices that `embedded-graphics` draws into.

use embedded_graphics::prelude::*;
use embedded_graphics::primitives::Rectangle;

use super::colours::Ink;

/// An image of palette indices, row-major, that `embedded-graphics` draws on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    /// A `width × height` canvas filled with `fill`.
    pub fn new(width: u32, height: u32, fill: Ink) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![fill.0; width as usize * height as usize],
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The palette indices, row-major.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// Copies `other` (of the same size) into this canvas.
    ///
    /// # Panics
    ///
    /// If the sizes differ.
    pub fn copy_from(&mut self, other: &Canvas) {
        assert_eq!((self.width, self.height), (other.width, other.height));
        self.pixels.copy_from_slice(&other.pixels);
    }

    /// Draws `item` (drawing on a canvas cannot fail).
    pub(super) fn put(&mut self, item: &impl Drawable<Color = Ink>) {
        let Ok(_) = item.draw(self);
    }
}

impl OriginDimensions for Canvas {
    fn size(&self) -> Size {
        Size::new(self.width, self.height)
    }
}

impl DrawTarget for Canvas {
    type Color = Ink;
    type Error = core::convert::Infallible;

    fn draw_iter<I: IntoIterator<Item = Pixel<Ink>>>(
        &mut self,
        pixels: I,
    ) -> Result<(), Self::Error> {
        let (w, h) = (self.width as i32, self.height as i32);
        for Pixel(p, ink) in pixels {
            if (0..w).contains(&p.x) && (0..h).contains(&p.y) {
                self.pixels[(p.y * w + p.x) as usize] = ink.0;
            }
        }
        Ok(())
    }

    /// Row by row: the board is a few hundred thousand pixels of rectangles per frame.
    fn fill_solid(&mut self, area: &Rectangle, ink: Ink) -> Result<(), Self::Error> {
        let area = area.intersection(&self.bounding_box());
        if let Some(end) = area.bottom_right() {
            let w = self.width as usize;
            let (x0, x1) = (area.top_left.x as usize, end.x as usize);
            for y in area.top_left.y as usize..=end.y as usize {
                self.pixels[y * w + x0..=y * w + x1].fill(ink.0);
            }
        }
        Ok(())
    }
}
